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
// exactly. It also counts requests not yet answered, for the drain at EOF,
// and remembers each one's method and whether the client cancelled it.
type ids struct {
	mu      sync.Mutex
	next    int64
	byWire  map[int64]pendingCall // private id → the client's request
	byRaw   map[string]int64      // client's id → private id, for cancellations
	changed chan struct{}         // closed (and replaced) when an answer is sent
}

// pendingCall is a request not yet answered.
type pendingCall struct {
	raw       json.RawMessage // the client's id, as sent
	method    string
	cancelled bool // by notifications/cancelled: it gets no answer
}

func newIDs() *ids {
	return &ids{byWire: map[int64]pendingCall{}, byRaw: map[string]int64{}, changed: make(chan struct{})}
}

// add records a request's id and method and returns its private id.
func (m *ids) add(raw json.RawMessage, method string) jsonrpc.ID {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next++
	m.byWire[m.next] = pendingCall{raw: raw, method: method}
	m.byRaw[string(raw)] = m.next
	// MakeID only fails on non-numbers; a counter stays far below 2^53.
	id, _ := jsonrpc.MakeID(float64(m.next))
	return id
}

// cancel marks the pending request named by the client's id as
// cancelled and returns its private id.
func (m *ids) cancel(raw json.RawMessage) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.byRaw[string(compact(raw))]
	if ok {
		c := m.byWire[n]
		c.cancelled = true
		m.byWire[n] = c
	}
	return n, ok
}

// take returns the request of a private id and forgets it.
func (m *ids) take(id jsonrpc.ID) (pendingCall, bool) {
	n, ok := id.Raw().(int64)
	if !ok {
		return pendingCall{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.byWire[n]
	if !ok {
		return pendingCall{}, false
	}
	delete(m.byWire, n)
	if m.byRaw[string(c.raw)] == n {
		delete(m.byRaw, string(c.raw))
	}
	close(m.changed)
	m.changed = make(chan struct{})
	return c, true
}

// pending returns the number of unanswered requests and a channel closed
// at the next answer.
func (m *ids) pending() (int, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byWire), m.changed
}
