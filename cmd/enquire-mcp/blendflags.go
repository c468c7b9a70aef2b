package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/search"
)

// unitFlag is a weight between 0 and 1 (--recency-weight,
// --importance-weight); set records whether the flag was given.
type unitFlag struct {
	v   float64
	set bool
}

func (u *unitFlag) String() string {
	if u == nil {
		return "0"
	}
	return strconv.FormatFloat(u.v, 'g', -1, 64)
}

func (u *unitFlag) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(f >= 0 && f <= 1) {
		return fmt.Errorf("want a number from 0 to 1, got %q", s)
	}
	u.v, u.set = f, true
	return nil
}

// ptr is the weight for a request: nil when the flag was not given.
func (u *unitFlag) ptr() *float64 {
	if !u.set {
		return nil
	}
	v := u.v
	return &v
}

// typesFlags are search's --types and --no-memory.
type typesFlags struct {
	types    string
	noMemory bool
}

func (t *typesFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.types, "types", "", "comma-separated result types to return: note, memory (default both)")
	fs.BoolVar(&t.noMemory, "no-memory", false, "leave out memories (notes with frontmatter type: memory); same as --types note")
}

// list is the types of the request (nil: both).
func (t typesFlags) list() ([]string, error) {
	types := splitList(t.types)
	if t.noMemory {
		if len(types) > 0 {
			return nil, usageError("give --types or --no-memory, not both")
		}
		return []string{search.ResultNote}, nil
	}
	return types, nil
}
