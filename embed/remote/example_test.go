package remote_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/remote"
)

// A stand-in for an Ollama server: every text embeds as (3, 4).
func fakeOllama() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/api/embed" {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		embs := make([][]float64, len(req.Input))
		for i, s := range req.Input {
			fmt.Printf("server got %q\n", s)
			embs[i] = []float64{3, 4}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": embs})
	}))
}

func ExampleNewOllama() {
	srv := fakeOllama()
	defer srv.Close()

	cfg, err := remote.FromEnv(remote.ProviderOllama, remote.Config{
		BaseURL: srv.URL, // as from a --ollama-url flag; it beats OLLAMA_HOST
		Model:   "nomic-embed-text",
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	e, err := remote.NewOllama(cfg)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if err := e.Probe(ctx); err != nil { // learn the dimension
		log.Fatal(err)
	}
	fmt.Println(strings.Replace(e.ID(), srv.Listener.Addr().String(), "HOST", 1), e.Dim())
	vecs, err := e.Embed(ctx, []string{"how do llamas sleep?"}, embed.Query)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(vecs)
	// Output:
	// server got "search_document: enquire-mcp dimension probe"
	// ollama:HOST/nomic-embed-text/2 2
	// server got "search_query: how do llamas sleep?"
	// [[0.6 0.8]]
}
