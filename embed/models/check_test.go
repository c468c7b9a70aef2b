package models

import (
	"errors"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		alias string
		known bool
	}{
		{"", true},
		{DefaultAlias, true},
		{VaultAlias, true},
		{"potion-base-8M", true},
		{"POTION-BASE-8M", true},
		{"ollama:nomic-embed-text", true},
		{"openai:text-embedding-3-small", true},
		{"ms-marco-MiniLM-L-6-v2", true}, // a transformer alias: known, even without the ort build
		{dir, true},
		{"ollama:", false},
		{"nosuch", false},
		{dir + "/missing", false},
	}
	for _, tt := range tests {
		t.Run(tt.alias, func(t *testing.T) {
			err := Check(tt.alias)
			if (err == nil) != tt.known || (err != nil && !errors.Is(err, ErrUnknown)) {
				t.Fatalf("Check(%q) = %v, want known %v", tt.alias, err, tt.known)
			}
		})
	}
}
