package httpserve

import (
	"net/http"
	"strings"
	"testing"
)

// BenchmarkEchoCall is the transport's own cost: one stateless tools/call
// of a trivial tool through auth, limits, the access log and the SDK.
func BenchmarkEchoCall(b *testing.B) {
	_, base, _ := start(&testing.T{}, Config{Token: testToken, RatePerMinute: 0})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, base+MCPPath, strings.NewReader(echoBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+testToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			b.Fatal(err, res)
		}
		res.Body.Close()
	}
}
