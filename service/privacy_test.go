package service

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/index"
)

// TestLogPurge: the log speaks of a purge only when one removed files;
// new rules that found nothing to purge are not news.
func TestLogPurge(t *testing.T) {
	tests := []struct {
		name string
		st   index.Stats
	}{
		{"nothing purged, file scrubbed for new rules", index.Stats{PurgedFile: true}},
		{"nothing purged", index.Stats{}},
		{"files purged", index.Stats{Purged: 2, PurgedFile: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			logPurge(slog.New(slog.NewTextHandler(&logs, nil)), tt.st)
			if (tt.st.Purged > 0) != strings.Contains(logs.String(), "privacy purge") {
				t.Fatalf("log %q for %+v", logs.String(), tt.st)
			}
		})
	}
}
