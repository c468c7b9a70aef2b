package tokenizer

import "sort"

// byteTrie maps byte strings to token ids for common-prefix search. Nodes
// are stored in flat arrays; the children of a node are allocated together,
// so they are contiguous and sorted by label.
type byteTrie struct {
	label []byte   // edge label leading to each node
	first []uint32 // index of the node's first child
	count []uint16 // number of children (at most 256)
	value []int32  // token id ending at the node, or -1
	root  [256]int32
}

// buildTrie builds the trie of keys; keys[i] maps to id i. When a key
// occurs twice the later id wins, as in a tokenizer's token → id table.
func buildTrie(keys []string) *byteTrie {
	order := make([]int32, 0, len(keys))
	for i, k := range keys {
		if k != "" {
			order = append(order, int32(i))
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })
	// Keep the last id of equal keys.
	dedup := order[:0]
	for _, id := range order {
		if n := len(dedup); n > 0 && keys[dedup[n-1]] == keys[id] {
			dedup[n-1] = id
			continue
		}
		dedup = append(dedup, id)
	}
	order = dedup

	t := &byteTrie{}
	type job struct{ node, lo, hi, depth int }
	t.addNode(0)
	// A stack keeps the pending work to the depth of the trie times its
	// fan-out, where a queue would hold a job per node.
	stack := []job{{0, 0, len(order), 0}}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		lo := j.lo
		if lo < j.hi && len(keys[order[lo]]) == j.depth {
			t.value[j.node] = order[lo]
			lo++
		}
		t.first[j.node] = uint32(len(t.label))
		for lo < j.hi {
			c := keys[order[lo]][j.depth]
			hi := lo + sort.Search(j.hi-lo, func(k int) bool { return keys[order[lo+k]][j.depth] > c })
			child := len(t.label)
			t.addNode(c)
			t.count[j.node]++
			stack = append(stack, job{child, lo, hi, j.depth + 1})
			lo = hi
		}
	}
	for i := range t.root {
		t.root[i] = -1
	}
	for n := t.first[0]; n < t.first[0]+uint32(t.count[0]); n++ {
		t.root[t.label[n]] = int32(n)
	}
	return t
}

// addNode appends an empty node.
func (t *byteTrie) addNode(label byte) {
	t.label = append(t.label, label)
	t.first = append(t.first, 0)
	t.count = append(t.count, 0)
	t.value = append(t.value, -1)
}

// child returns the child of node n labelled c, or -1.
func (t *byteTrie) child(n int32, c byte) int32 {
	lo, hi := int(t.first[n]), int(t.first[n])+int(t.count[n])
	for hi-lo > 8 {
		mid := int(uint(lo+hi) >> 1)
		if t.label[mid] < c {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for ; lo < hi; lo++ {
		if t.label[lo] == c {
			return int32(lo)
		}
		if t.label[lo] > c {
			break
		}
	}
	return -1
}

// lookup returns the id of key, or -1.
func (t *byteTrie) lookup(key string) int32 {
	if key == "" {
		return -1
	}
	n := t.root[key[0]]
	for i := 1; i < len(key) && n >= 0; i++ {
		n = t.child(n, key[i])
	}
	if n < 0 {
		return -1
	}
	return t.value[n]
}
