//go:build !unix

package main

import "time"

// selfCPU is not measured here (0: the report leaves it out).
func selfCPU() time.Duration { return 0 }
