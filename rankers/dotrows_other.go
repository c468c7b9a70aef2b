//go:build !amd64

package rankers

// haveDotLanes and haveDot8Lanes are false: there is no vector kernel for
// this architecture.
const (
	haveDotLanes  = false
	haveDot8Lanes = false
)

func dotLanes(q, rows *float32, stride, blocks, n int, lanes *float32) {
	panic("dotLanes: no vector kernel on this architecture")
}

func dot8Lanes(q *float32, rows *int8, scales *float32, stride, blocks, n int, lanes *float32) {
	panic("dot8Lanes: no vector kernel on this architecture")
}
