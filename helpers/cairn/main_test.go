package main

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// TestMain isolates the tests and keeps hooks from starting background
// runs (see cairntest.Main).
func TestMain(m *testing.M) { cairntest.Main(m) }
