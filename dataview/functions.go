package dataview

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
)

// funcSpec is one supported Dataview function. Like Dataview, a function
// is "vectorized" over list arguments at the given positions: called with
// a list there, it is applied to each element and returns a list.
type funcSpec struct {
	minArgs, maxArgs int
	vector           map[int][]int // argument count → positions
	impl             func(ev *evaluator, args []Value) (Value, error)
}

func (s funcSpec) arity() string {
	switch {
	case s.minArgs == s.maxArgs && s.minArgs == 1:
		return "1 argument"
	case s.minArgs == s.maxArgs:
		return fmt.Sprintf("%d arguments", s.minArgs)
	}
	return fmt.Sprintf("%d to %d arguments", s.minArgs, s.maxArgs)
}

// functions are the Dataview functions this package implements, with
// Dataview's semantics (see its functions reference).
var functions = map[string]funcSpec{
	"contains":   {2, 2, map[int][]int{2: {1}}, fnContains(containsAny)},
	"icontains":  {2, 2, map[int][]int{2: {1}}, fnContains(containsFold)},
	"econtains":  {2, 2, map[int][]int{2: {1}}, fnContains(containsExact)},
	"length":     {1, 1, nil, fnLength},
	"lower":      {1, 1, map[int][]int{1: {0}}, fnCase(strings.ToLower, "lower")},
	"upper":      {1, 1, map[int][]int{1: {0}}, fnCase(strings.ToUpper, "upper")},
	"startswith": {2, 2, map[int][]int{2: {0, 1}}, fnAffix(strings.HasPrefix, "startswith")},
	"endswith":   {2, 2, map[int][]int{2: {0, 1}}, fnAffix(strings.HasSuffix, "endswith")},
	"date":       {1, 1, map[int][]int{1: {0}}, fnDate},
	"dur":        {1, 1, map[int][]int{1: {0}}, fnDur},
	"number":     {1, 1, map[int][]int{1: {0}}, fnNumber},
	"default":    {2, 2, map[int][]int{2: {0, 1}}, fnDefault},
	"choice":     {3, 3, map[int][]int{3: {0}}, fnChoice},
	"striptime":  {1, 1, map[int][]int{1: {0}}, fnStriptime},
}

func functionNames() string {
	names := make([]string, 0, len(functions))
	for n := range functions {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// callFunction applies a function, vectorizing over list arguments.
func (ev *evaluator) callFunction(name string, args []Value) (Value, error) {
	spec := functions[name]
	var lists []int
	for _, pos := range spec.vector[len(args)] {
		if _, ok := args[pos].([]Value); ok {
			lists = append(lists, pos)
		}
	}
	if len(lists) == 0 {
		return spec.impl(ev, args)
	}
	n := math.MaxInt
	for _, pos := range lists {
		n = min(n, len(args[pos].([]Value)))
	}
	out := make([]Value, 0, n)
	for i := range n {
		sub := slices.Clone(args)
		for _, pos := range lists {
			sub[pos] = args[pos].([]Value)[i]
		}
		v, err := ev.callFunction(name, sub)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func noImpl(name string, args ...Value) error {
	types := make([]string, len(args))
	for i, a := range args {
		types[i] = typeOf(a)
	}
	return rowErrorf("No implementation of '%s' found for arguments: %s", name, strings.Join(types, ", "))
}

type containsMode int

const (
	containsAny   containsMode = iota // contains: recursive, substring
	containsFold                      // icontains: recursive, case-insensitive
	containsExact                     // econtains: list elements must equal
)

// fnContains: a list holds the value (contains/icontains look into each
// element, so a list of texts matches a substring); a text holds a
// substring; an object has the key; anything else compares with =.
func fnContains(mode containsMode) func(*evaluator, []Value) (Value, error) {
	return func(ev *evaluator, args []Value) (Value, error) {
		return ev.contains(mode, args[0], args[1]), nil
	}
}

func (ev *evaluator) contains(mode containsMode, hay, needle Value) bool {
	switch h := hay.(type) {
	case []Value:
		for _, e := range h {
			if mode == containsExact {
				if ev.cmp.compare(needle, e) == 0 {
					return true
				}
			} else if ev.contains(mode, e, needle) {
				return true
			}
		}
		return false
	case string:
		if n, ok := needle.(string); ok {
			if mode == containsFold {
				return strings.Contains(strings.ToLower(h), strings.ToLower(n))
			}
			return strings.Contains(h, n)
		}
	case Object:
		if n, ok := needle.(string); ok {
			_, has := h.Get(n)
			return has
		}
	}
	return ev.cmp.compare(hay, needle) == 0
}

func fnLength(_ *evaluator, args []Value) (Value, error) {
	switch x := args[0].(type) {
	case []Value:
		return float64(len(x)), nil
	case Object:
		return float64(len(x.Keys())), nil
	case string:
		return float64(jsLength(x)), nil
	case nil:
		return 0.0, nil
	}
	return nil, noImpl("length", args...)
}

func fnCase(f func(string) string, name string) func(*evaluator, []Value) (Value, error) {
	return func(_ *evaluator, args []Value) (Value, error) {
		switch x := args[0].(type) {
		case string:
			return f(x), nil
		case nil:
			return nil, nil
		}
		return nil, noImpl(name, args...)
	}
}

func fnAffix(f func(string, string) bool, name string) func(*evaluator, []Value) (Value, error) {
	return func(_ *evaluator, args []Value) (Value, error) {
		if args[0] == nil || args[1] == nil {
			return nil, nil
		}
		s, ok1 := args[0].(string)
		a, ok2 := args[1].(string)
		if !ok1 || !ok2 {
			return nil, noImpl(name, args...)
		}
		return f(s, a), nil
	}
}

// fnDate parses a date from text (the whole text), keeps a date, and
// reads a link's display, path, then its note's file.day.
func fnDate(ev *evaluator, args []Value) (Value, error) {
	switch x := args[0].(type) {
	case string:
		if d, ok := parseDateString(x); ok {
			return d.in(ev.loc), nil
		}
		return nil, nil
	case time.Time:
		return x, nil
	case Link:
		for _, s := range []string{x.Display, x.Path} {
			if d, ok := parseDateString(s); ok && s != "" {
				return d.in(ev.loc), nil
			}
		}
		if pg := ev.pageOfLink(x); pg != nil {
			if day, ok := ev.fileField(pg.idx, "day"); ok {
				return day, nil
			}
		}
		return nil, nil
	case nil:
		return nil, nil
	}
	return nil, noImpl("date", args...)
}

func fnDur(_ *evaluator, args []Value) (Value, error) {
	switch x := args[0].(type) {
	case string:
		if d, ok := parseDurationString(strings.TrimSpace(x)); ok {
			return d, nil
		}
		return nil, nil
	case Duration:
		return x, nil
	case nil:
		return nil, nil
	}
	return nil, noImpl("dur", args...)
}

var firstNumber = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?`)

func fnNumber(_ *evaluator, args []Value) (Value, error) {
	switch x := args[0].(type) {
	case float64:
		return x, nil
	case string:
		m := firstNumber.FindString(x)
		if m == "" {
			return nil, nil
		}
		v, _ := scanNumber(m)
		return v, nil
	case nil:
		return nil, nil
	}
	return nil, noImpl("number", args...)
}

func fnDefault(_ *evaluator, args []Value) (Value, error) {
	if args[0] == nil {
		return args[1], nil
	}
	return args[0], nil
}

func fnChoice(_ *evaluator, args []Value) (Value, error) {
	if truthy(args[0]) {
		return args[1], nil
	}
	return args[2], nil
}

func fnStriptime(_ *evaluator, args []Value) (Value, error) {
	switch x := args[0].(type) {
	case time.Time:
		y, m, d := x.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, x.Location()), nil
	case nil:
		return nil, nil
	}
	return nil, noImpl("striptime", args...)
}
