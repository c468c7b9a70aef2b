// Package stdio frames newline-delimited JSON-RPC 2.0 for the MCP server
// over standard input and output.
//
// The SDK's own stdio transport ends the session on the first line it
// cannot decode, answers nothing, and reads ids through float64, so a
// client's stray print or an id like 1.5 or 2^60+1 breaks the session.
// This transport sits in front of the SDK: every line is checked here and
// a bad one is answered with a JSON-RPC error (-32700 parse error,
// -32600 invalid request) while the session keeps serving; lines over a
// byte cap are answered and skipped without being buffered whole; request
// ids are swapped for private integers on the way in and the client's
// exact bytes are put back on the way out; a request the client cancels
// gets no response (the SDK would answer it with "context canceled"); an
// error the SDK leaves without a JSON-RPC code gets one; and at end of
// input the requests already received are answered before Read reports
// EOF.
package stdio
