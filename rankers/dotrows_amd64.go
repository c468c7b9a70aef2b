package rankers

import "golang.org/x/sys/cpu"

// haveDotLanes reports whether dotLanes may run (it uses AVX), and
// haveDot8Lanes whether dot8Lanes may (AVX2).
var (
	haveDotLanes  = cpu.X86.HasAVX
	haveDot8Lanes = cpu.X86.HasAVX2
)

// dotLanes computes, for each of n rows starting at rows (stride floats
// apart), the eight partial sums of dot over the first blocks×8
// components: lanes[8r+j] is the sum over b of q[8b+j]×row[8b+j], each
// product and each addition rounded to float32, in order of b from a zero
// start (dot's s0…s7).
//
//go:noescape
func dotLanes(q, rows *float32, stride, blocks, n int, lanes *float32)

// dot8Lanes is dotLanes over int8 rows (stride bytes apart) with one scale
// per row: the eight partial sums of dot8.
//
//go:noescape
func dot8Lanes(q *float32, rows *int8, scales *float32, stride, blocks, n int, lanes *float32)
