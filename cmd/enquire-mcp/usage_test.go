package main

import (
	"strings"
	"testing"
)

// TestInvalidFlagValuesExitTwo holds every command to the README's rule:
// a value the user must fix is a usage error, exit code 2, said in one
// line that names what is wrong.
func TestInvalidFlagValuesExitTwo(t *testing.T) {
	const quality = "../../testdata/quality"
	v := fixtureVault
	tests := []struct {
		name   string
		args   []string
		stderr string // substring
	}{
		{"search limit too big", []string{"search", "--vault", v, "x", "--limit", "500"}, "limit must be between 1 and 100"},
		{"search limit negative", []string{"search", "--vault", v, "x", "--limit", "-1"}, "limit must be between"},
		{"search min-signals", []string{"search", "--vault", v, "x", "--min-signals", "9"}, "min_signals must be between"},
		{"search granularity", []string{"search", "--vault", v, "x", "--granularity", "para"}, `granularity must be "note" or "block"`},
		{"search folder escapes", []string{"search", "--vault", v, "x", "--folder", "../x"}, "inside the vault"},
		{"search types", []string{"search", "--vault", v, "x", "--types", "foo"}, `unknown type "foo"`},
		{"search blend weights sum", []string{"search", "--vault", v, "x", "--recency-weight", "0.6", "--importance-weight", "0.6"}, "must not exceed 1"},
		{"search rerank unknown", []string{"search", "--vault", v, "x", "--rerank", "bogus"}, "--rerank"},
		{"search rerank-top-n", []string{"search", "--vault", v, "x", "--rerank", "bogus", "--rerank-top-n", "0"}, "--rerank-top-n must be"},
		{"search rrf-weights", []string{"search", "--vault", v, "x", "--rrf-weights", "x=1"}, "-rrf-weights"},
		{"search bm25-b", []string{"search", "--vault", v, "x", "--bm25-b", "2"}, "-bm25-b"},
		{"search recency-weight", []string{"search", "--vault", v, "x", "--recency-weight", "2"}, "-recency-weight"},
		{"search exclude-glob", []string{"search", "--vault", v, "x", "--exclude-glob", "["}, "invalid glob"},
		{"search read-paths", []string{"search", "--vault", v, "x", "--read-paths", "["}, "invalid glob"},
		{"search filter-frontmatter", []string{"search", "--vault", v, "x", "--filter-frontmatter", "{"}, "--filter-frontmatter"},
		{"search ocr without pdfs", []string{"search", "--vault", v, "x", "--ocr"}, "add --include-pdfs"},
		{"search ocr-max-pages", []string{"search", "--vault", v, "x", "--include-pdfs", "--ocr", "--ocr-max-pages", "0"}, "--ocr-max-pages 0"},
		{"search ocr-langs", []string{"search", "--vault", v, "x", "--include-pdfs", "--ocr", "--ocr-langs", "bad lang"}, "--ocr-langs"},
		{"index ocr-timeout", []string{"index", "--vault", v, "--include-pdfs", "--ocr", "--ocr-timeout", "0s"}, "--ocr-timeout"},
		{"build-embeddings batch", []string{"build-embeddings", "--vault", v, "--batch", "0"}, "--batch 0"},
		{"build-embeddings model", []string{"build-embeddings", "--vault", v, "--embedding-model", "nosuch"}, "--embedding-model"},
		{"install-model alias", []string{"install-model", "nosuch"}, "unknown model alias"},
		{"install-model from", []string{"install-model", "--from", "bogus", "potion-base-8M"}, "--from"},
		{"eval split", []string{"eval", quality, "--split", "bogus"}, `--split "bogus"`},
		{"eval signals", []string{"eval", quality, "--signals", "bogus"}, "--signals"},
		{"eval weights", []string{"eval", quality, "--weights", "bogus=1"}, "-weights"},
		{"eval model", []string{"eval", quality, "--embedding-model", "nosuch"}, "--embedding-model"},
		{"eval ocr without pdfs", []string{"eval", quality, "--ocr"}, "add --include-pdfs"},
		{"eval blend weights sum", []string{"eval", quality, "--recency-weight", "0.6", "--importance-weight", "0.6"}, "must not exceed 1"},
		{"setup client", []string{"setup", "--vault", v, "--client", "bogus"}, "--client must be one of"},
		{"configure http", []string{"configure", "--client", "claude-code", "--http", "notaurl"}, "--http"},
		{"configure client", []string{"configure", "--client", "bogus", "--vault", v}, "--client must be one of"},
		{"serve poll", []string{"serve", "--vault", v, "--poll", "1ms"}, "--poll 1ms"},
		{"serve memory-limit", []string{"serve", "--vault", v, "--memory-limit", "xyz"}, "-memory-limit"},
		{"serve memory-folder", []string{"serve", "--vault", v, "--memory-folder", "../x"}, "--memory-folder"},
		{"serve-http addr", []string{"serve-http", "--vault", v, "--addr", "bad"}, "--addr"},
		{"search max-file-size", []string{"search", "--vault", v, "x", "--max-file-size", "-1"}, "--max-file-size -1"},
		{"search stale-days", []string{"search", "--vault", v, "x", "--stale-days", "-1"}, "--stale-days -1"},
		{"search prefilter-limit", []string{"search", "--vault", v, "x", "--prefilter-limit", "-5"}, "--prefilter-limit -5"},
		{"index max-file-size", []string{"index", "--vault", v, "--max-file-size", "0"}, "--max-file-size 0"},
		{"build-embeddings max-file-size", []string{"build-embeddings", "--vault", v, "--max-file-size", "-1"}, "--max-file-size -1"},
		{"doctor max-file-size", []string{"doctor", "--vault", v, "--max-file-size", "-1"}, "--max-file-size -1"},
		{"eval max-file-size", []string{"eval", quality, "--max-file-size", "-1"}, "--max-file-size -1"},
		{"serve max-reply-bytes", []string{"serve", "--vault", v, "--max-reply-bytes", "0"}, "--max-reply-bytes 0"},
		{"serve-http max-body", []string{"serve-http", "--vault", v, "--max-body", "-1"}, "--max-body -1"},
		{"serve-http max-concurrent", []string{"serve-http", "--vault", v, "--max-concurrent", "0"}, "--max-concurrent 0"},
		{"serve-http max-sessions", []string{"serve-http", "--vault", v, "--max-sessions", "0"}, "--max-sessions 0"},
		{"serve-http rate-limit", []string{"serve-http", "--vault", v, "--rate-limit", "-1"}, "--rate-limit -1"},
		{"serve-http request-timeout", []string{"serve-http", "--vault", v, "--request-timeout", "-1s"}, "--request-timeout -1s"},
		{"serve-http session-idle", []string{"serve-http", "--vault", v, "--session-idle", "0s"}, "--session-idle 0s"},
		{"serve-http warmup", []string{"serve-http", "--vault", v, "--warmup", "-1"}, "--warmup -1"},
		{"search embedding-model", []string{"search", "--vault", v, "x", "--embedding-model", "nosuch"}, "--embedding-model"},
		{"serve embedding-model", []string{"serve", "--vault", v, "--embedding-model", "nosuch"}, "--embedding-model"},
		{"doctor embedding-model", []string{"doctor", "--vault", v, "--embedding-model", "nosuch"}, "--embedding-model"},
		{"gen-token argument", []string{"gen-token", "extra"}, "unexpected argument"},
		{"prune argument", []string{"prune", "extra"}, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			code, _, stderr := runCLI(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("code %d (want 2), stderr %q (want %q)", code, stderr, tt.stderr)
			}
		})
	}
}
