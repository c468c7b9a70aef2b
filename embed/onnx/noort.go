//go:build !ort

package onnx

import "context"

// Available reports whether this binary was built with ONNX Runtime.
const Available = false

// Open fails with ErrNeedsORT: this binary was built without the ort tag.
func Open(ctx context.Context, dir string, opts Options) (TextEmbedder, error) {
	return nil, ErrNeedsORT
}

// OpenReranker fails with ErrNeedsORT: this binary was built without the
// ort tag.
func OpenReranker(ctx context.Context, dir string, opts Options) (Scorer, error) {
	return nil, ErrNeedsORT
}

// RuntimeVersion is "" without ONNX Runtime.
func RuntimeVersion() string { return "" }
