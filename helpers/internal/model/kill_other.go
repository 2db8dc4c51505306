//go:build !linux

package model

import "os/exec"

// dieWithParent does nothing here: only Linux has Pdeathsig.
func dieWithParent(*exec.Cmd) {}

// startTime is unknown here.
func startTime(int) uint64 { return 0 }

// killCall does nothing here: without /proc, the process group's kill is
// all there is (a child that left it with setsid survives).
func killCall(string) {}

// Reap does nothing here (see killCall); it reports 0.
func Reap() int { return 0 }
