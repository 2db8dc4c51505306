package ui

import (
	"net"
	"testing"
)

func TestBrowsable(t *testing.T) {
	for _, tc := range []struct {
		addr *net.TCPAddr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 9}, "[::1]:9"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 80}, "localhost:80"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 81}, "localhost:81"},
		{&net.TCPAddr{Port: 82}, "localhost:82"},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 2), Port: 83}, "192.168.1.2:83"},
	} {
		if got := browsable(tc.addr); got != tc.want {
			t.Errorf("browsable(%v) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}
