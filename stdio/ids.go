package stdio

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ids swaps each client request id for a private integer on the way in
// and back on the way out. The SDK only knows int64 and string ids and
// reads numbers through float64 (1.5 becomes 1, 2^60+1 loses digits); the
// swap keeps the client's bytes out of its hands so they round-trip
// exactly. It also counts requests not yet answered, for the drain at EOF.
type ids struct {
	mu      sync.Mutex
	next    int64
	byWire  map[int64]json.RawMessage // private id → client's id
	byRaw   map[string]int64          // client's id → private id, for cancellations
	changed chan struct{}             // closed (and replaced) when an answer is sent
}

func newIDs() *ids {
	return &ids{byWire: map[int64]json.RawMessage{}, byRaw: map[string]int64{}, changed: make(chan struct{})}
}

// add records a request's id and returns its private id.
func (m *ids) add(raw json.RawMessage) jsonrpc.ID {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next++
	m.byWire[m.next] = raw
	m.byRaw[string(raw)] = m.next
	// MakeID only fails on non-numbers; a counter stays far below 2^53.
	id, _ := jsonrpc.MakeID(float64(m.next))
	return id
}

// lookup returns the private id of a pending request named by the client's id.
func (m *ids) lookup(raw json.RawMessage) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.byRaw[string(compact(raw))]
	return n, ok
}

// take returns the client's id for a private one and forgets it.
func (m *ids) take(id jsonrpc.ID) (json.RawMessage, bool) {
	n, ok := id.Raw().(int64)
	if !ok {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	raw, ok := m.byWire[n]
	if !ok {
		return nil, false
	}
	delete(m.byWire, n)
	if m.byRaw[string(raw)] == n {
		delete(m.byRaw, string(raw))
	}
	close(m.changed)
	m.changed = make(chan struct{})
	return raw, true
}

// pending returns the number of unanswered requests and a channel closed
// at the next answer.
func (m *ids) pending() (int, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byWire), m.changed
}
