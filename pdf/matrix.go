package pdf

import lpdf "github.com/ledongthuc/pdf"

// matrix is a PDF transformation matrix [a b c d e f], applied to row
// vectors: [x y 1] × M (PDF 32000-1 §8.3.3).
type matrix [6]float64

// identity returns the identity transformation.
func identity() matrix { return matrix{1, 0, 0, 1, 0, 0} }

// mul returns m × n: the transformation m followed by n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2],
		m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2],
		m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4],
		m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// toMatrix reads six number operands.
func toMatrix(a []lpdf.Value) matrix {
	var m matrix
	for i := range m {
		m[i] = num(a[i])
	}
	return m
}
