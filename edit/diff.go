package edit

import (
	"fmt"
	"strings"
)

// maxDiffCells bounds the LCS table; larger inputs get one hunk that
// replaces everything.
const maxDiffCells = 4 << 20

// Diff is a unified diff of two line lists (terminators are ignored) with
// context lines around each change, headed by "--- a/name" and
// "+++ b/name". It is "" when the lines are equal.
func Diff(name string, a, b []string, context int) string {
	a, b = trimmedLines(a), trimmedLines(b)
	ops := diffOps(a, b)
	var out strings.Builder
	for _, h := range hunks(ops, context) {
		if out.Len() == 0 {
			fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
		}
		writeHunk(&out, ops[h[0]:h[1]])
	}
	return out.String()
}

func trimmedLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = stripEOL(l)
	}
	return out
}

// op is one diff line: ' ' kept, '-' removed, '+' added, with its 1-based
// line numbers in a and b.
type op struct {
	kind  byte
	text  string
	aLine int
	bLine int
}

// diffOps is the edit script of a longest common subsequence.
func diffOps(a, b []string) []op {
	var ops []op
	if len(a)*len(b) > maxDiffCells {
		for i, l := range a {
			ops = append(ops, op{'-', l, i + 1, 0})
		}
		for j, l := range b {
			ops = append(ops, op{'+', l, len(a) + 1, j + 1})
		}
		return ops
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], i + 1, j + 1})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i], i + 1, j + 1})
			i++
		default:
			ops = append(ops, op{'+', b[j], i + 1, j + 1})
			j++
		}
	}
	return ops
}

// hunks groups changes with up to context kept lines around them;
// each hunk is a [start, end) range of ops.
func hunks(ops []op, context int) [][2]int {
	var out [][2]int
	for i := 0; i < len(ops); i++ {
		if ops[i].kind == ' ' {
			continue
		}
		start := max(0, i-context)
		end := i + 1
		for k := i + 1; k < len(ops) && k <= end+2*context; k++ {
			if ops[k].kind != ' ' {
				end = k + 1
			}
		}
		end = min(len(ops), end+context)
		if n := len(out); n > 0 && out[n-1][1] >= start {
			out[n-1][1] = end
		} else {
			out = append(out, [2]int{start, end})
		}
		i = end - 1
	}
	return out
}

func writeHunk(out *strings.Builder, ops []op) {
	aStart, bStart, aLen, bLen := ops[0].aLine, ops[0].bLine, 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			aLen++
		}
		if o.kind != '-' {
			bLen++
		}
	}
	if aLen == 0 {
		aStart--
	}
	if bLen == 0 {
		bStart--
	}
	fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", aStart, aLen, bStart, bLen)
	for _, o := range ops {
		out.WriteByte(o.kind)
		out.WriteString(o.text)
		out.WriteByte('\n')
	}
}
