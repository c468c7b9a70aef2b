package privacy

import (
	"fmt"
	"testing"
)

// BenchmarkExcluded matches vault paths against ten globs and an ignore
// file of five lines: the per-file cost the loader pays.
func BenchmarkExcluded(b *testing.B) {
	r, err := Compile(Config{Exclude: []string{"Z*/**", "**/*.secret.md", "Journal/**", "{Health,Clients}/**", "**/private-*",
		"X*", "**/[0-9][0-9][0-9][0-9]-*.md", "tmp/**", "**/draft*", "Q*"}, MarkerKey: DefaultMarkerKey},
		[]byte("Archive/\n*.log\n/Top.md\n!Archive/keep.md\ndocs/**/*.tmp\n"), false)
	if err != nil {
		b.Fatal(err)
	}
	paths := make([]string, 1000)
	for i := range paths {
		paths[i] = fmt.Sprintf("Area %d/Sub folder %d/A note about topic %d.md", i%17, i%5, i)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		r.Excluded(paths[i%len(paths)])
	}
}
