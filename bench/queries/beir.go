package queries

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// ReadBEIR returns the "text" of every line of a BEIR queries.jsonl that
// has one.
func ReadBEIR(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if strings.TrimSpace(q.Text) != "" {
			out = append(out, q.Text)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
