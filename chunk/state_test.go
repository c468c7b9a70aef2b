package chunk

import (
	"reflect"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// TestStateRoundTrip: chunks read back from the engine state equal the
// chunks written, and a chunk past its note's body is an error.
func TestStateRoundTrip(t *testing.T) {
	cs := []Chunk{
		{Index: 0, Start: 0, End: 10, LineStart: 1, LineEnd: 2, Headings: []string{"A"}, Tokens: 3},
		{Index: 1, Start: 10, End: 25, LineStart: 3, LineEnd: 7, Headings: []string{"A", "B"}, Tokens: 5, Page: 2},
	}
	for _, tt := range []struct {
		name    string
		bodyLen int
		wantErr bool
	}{{"within the body", 25, false}, {"past the body", 24, true}} {
		t.Run(tt.name, func(t *testing.T) {
			w := &statefile.Writer{}
			EncodeState(w, cs)
			r := statefile.NewReader(w.Buf)
			got := DecodeState(r, tt.bodyLen)
			err := r.Done()
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want one: %v", err, tt.wantErr)
			}
			if !tt.wantErr && !reflect.DeepEqual(got, cs) {
				t.Fatalf("read back %+v, want %+v", got, cs)
			}
		})
	}
}
