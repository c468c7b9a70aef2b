package bert

// Kernels names the kernel sets this CPU runs, fastest first.
func Kernels() []string {
	var out []string
	for _, k := range kernels() {
		out = append(out, k.name)
	}
	return out
}

// NewWithKernel is New with the named kernel set.
func NewWithKernel(w Weights, name string) (*Encoder, error) {
	for _, k := range kernels() {
		if k.name == name {
			return newEncoder(w, k)
		}
	}
	panic("no kernel " + name)
}
