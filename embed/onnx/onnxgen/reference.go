package onnxgen

import "math"

// Forward computes the model's output again, in float64, with plain loops:
// for each sequence of the batch, last_hidden_state [seq][hidden] (an
// embedding model) or the one logit (a cross-encoder, in [0][0]). ids,
// typeIDs and mask are [batch][seq]; padding positions have mask 0.
func (m *Model) Forward(ids, typeIDs, mask [][]int64) [][][]float64 {
	out := make([][][]float64, len(ids))
	for b := range ids {
		x := m.embed(ids[b], typeIDs[b])
		for _, l := range m.layers {
			x = m.layer(l, x, mask[b])
		}
		if m.CrossEncoder {
			pooled := linear(x[0], m.wp, m.bp)
			for i := range pooled {
				pooled[i] = math.Tanh(pooled[i])
			}
			x = [][]float64{linear(pooled, m.wc, m.bc)}
		}
		out[b] = x
	}
	return out
}

func (m *Model) embed(ids, typeIDs []int64) [][]float64 {
	h := m.Hidden
	x := make([][]float64, len(ids))
	for s, id := range ids {
		v := make([]float64, h)
		for i := range v {
			v[i] = float64(m.word[int(id)*h+i]) + float64(m.pos[s*h+i]) + float64(m.typ[int(typeIDs[s])*h+i])
		}
		x[s] = layerNorm(v, m.lng, m.lnb, m.eps())
	}
	return x
}

func (m *Model) layer(l layer, x [][]float64, mask []int64) [][]float64 {
	n, h := len(x), m.Hidden
	hd := h / m.Heads
	q, k, v := make([][]float64, n), make([][]float64, n), make([][]float64, n)
	for s := range x {
		q[s], k[s], v[s] = linear(x[s], l.wq, l.bq), linear(x[s], l.wk, l.bk), linear(x[s], l.wv, l.bv)
	}
	ctx := make([][]float64, n)
	for s := range ctx {
		ctx[s] = make([]float64, h)
	}
	scale := 1 / math.Sqrt(float64(hd))
	for head := range m.Heads {
		lo := head * hd
		for s := range n {
			scores := make([]float64, n)
			for t := range n {
				dot := 0.0
				for i := lo; i < lo+hd; i++ {
					dot += q[s][i] * k[t][i]
				}
				scores[t] = dot*scale + (1-float64(mask[t]))*maskBias
			}
			softmax(scores)
			for t := range n {
				for i := lo; i < lo+hd; i++ {
					ctx[s][i] += scores[t] * v[t][i]
				}
			}
		}
	}
	out := make([][]float64, n)
	for s := range x {
		a := linear(ctx[s], l.wo, l.bo)
		for i := range a {
			a[i] += x[s][i]
		}
		a = layerNorm(a, l.ln1g, l.ln1b, m.eps())
		f := linear(a, l.w1, l.b1)
		for i, z := range f {
			f[i] = 0.5 * z * (1 + math.Erf(z/math.Sqrt2))
		}
		f = linear(f, l.w2, l.b2)
		for i := range f {
			f[i] += a[i]
		}
		out[s] = layerNorm(f, l.ln2g, l.ln2b, m.eps())
	}
	return out
}

// linear is x·W + b with W stored [in][out].
func linear(x []float64, w, b []float32) []float64 {
	out := make([]float64, len(b))
	for j := range out {
		out[j] = float64(b[j])
	}
	for i, xi := range x {
		row := w[i*len(b) : (i+1)*len(b)]
		for j, wij := range row {
			out[j] += xi * float64(wij)
		}
	}
	return out
}

func layerNorm(v []float64, g, b []float32, eps float64) []float64 {
	mean, vr := 0.0, 0.0
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		vr += (x - mean) * (x - mean)
	}
	vr /= float64(len(v))
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = (x-mean)/math.Sqrt(vr+eps)*float64(g[i]) + float64(b[i])
	}
	return out
}

func softmax(v []float64) {
	top := math.Inf(-1)
	for _, x := range v {
		top = max(top, x)
	}
	sum := 0.0
	for i, x := range v {
		v[i] = math.Exp(x - top)
		sum += v[i]
	}
	for i := range v {
		v[i] /= sum
	}
}
