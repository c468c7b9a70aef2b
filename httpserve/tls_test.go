package httpserve

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/httpserve/httpservetest"
)

func TestServeTLS(t *testing.T) {
	certFile, keyFile, pool := httpservetest.SelfSigned(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{Token: testToken})
	s.Attach(newMCP())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, TLS{CertFile: certFile, KeyFile: keyFile}) }()
	defer func() { cancel(); <-done }()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	base := "https://" + ln.Addr().String()

	req, _ := http.NewRequest(http.MethodPost, base+MCPPath, strings.NewReader(echoBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "hello") {
		t.Fatalf("over TLS: %d %s", res.StatusCode, body)
	}
	res, err = client.Get(base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), `"resource":"https://127.0.0.1:`) {
		t.Fatalf("metadata over TLS names %s", body)
	}
	// Plain HTTP on the TLS port gets no MCP answer.
	if res, err := http.Post("http://"+ln.Addr().String()+MCPPath, "application/json", strings.NewReader(echoBody)); err == nil {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if strings.Contains(string(b), "hello") {
			t.Fatal("served MCP over plain HTTP on the TLS port")
		}
	}
}
