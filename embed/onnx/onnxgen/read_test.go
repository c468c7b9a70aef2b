package onnxgen

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
)

// TestFromONNXAllocatesTheWeightsOnce reads a graph whose word table
// dominates, as a real model's does: the read may allocate the float32
// weights and a little more, not a copy of the file's bytes as well
// (which doubled the peak memory of loading a model).
func TestFromONNXAllocatesTheWeightsOnce(t *testing.T) {
	m, err := New(Config{Vocab: 30522, Hidden: 32, Layers: 2, Heads: 4, Intermediate: 64, MaxPositions: 64, TypeVocab: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := m.WriteFolder(dir, []byte("{}"), ""); err != nil {
		t.Fatal(err)
	}
	weights := uint64(len(m.ONNX)) // float32 values are nearly all of the graph
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := FromONNX(context.Background(), dir, filepath.Join(dir, "onnx", "model.onnx"))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > weights*5/4 {
		t.Errorf("reading %d bytes of weights allocated %d bytes (%.2f×): the file's bytes were copied too", weights, alloc, float64(alloc)/float64(weights))
	}
	w, orig := got.Weights(), m.Weights()
	if len(w.Word) != len(orig.Word) || w.Word[12345] != orig.Word[12345] || w.Layers[1].FF2.W[7] != orig.Layers[1].FF2.W[7] {
		t.Error("the weights read back differ from the written ones")
	}
}
