//go:build !amd64

package rankers

// haveDotLanes is false: there is no vector kernel for this architecture.
const haveDotLanes = false

func dotLanes(q, rows *float32, stride, blocks, n int, lanes *float32) {
	panic("dotLanes: no vector kernel on this architecture")
}
