// Package remote embeds texts with an embedding server over HTTP: a local
// or remote Ollama (NewOllama, POST {base}/api/embed) or any server that
// speaks the OpenAI embeddings API (NewOpenAI, POST {base}/v1/embeddings:
// OpenAI itself, llama.cpp's llama-server, vLLM, LM Studio, ...).
//
// Both providers implement embed.Embedder and share one Config: batching
// (by count and by request size), a per-request timeout, retries with
// exponential backoff and jitter on network errors, 429 (honouring
// Retry-After) and 5xx, per-model query/document prefixes, truncation of
// long texts, and strict checks on what comes back (count, dimension,
// finite values) before the vectors are L2-normalised.
//
// The vector dimension may be left to the server: with Config.Dim == 0 it
// is learned from the first response and enforced from then on. Callers
// that need ID or Dim before embedding anything (to compare with a stored
// index, say) call Probe first.
//
// Nothing here touches the network until Embed or Probe is called, and
// API keys never appear in errors, IDs or formatted configs; nor do
// passwords, user names or query strings of the base URL.
//
// IDs name the provider, the server's host, the model and the dimension,
// plus a short hash of the prefixes and MaxChars when they are not the
// model's defaults: see Ollama.ID and OpenAI.ID.
package remote
