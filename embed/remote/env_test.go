package remote

import (
	"testing"
)

func TestFromEnv(t *testing.T) {
	all := map[string]string{
		"ENQUIRE_OLLAMA_URL":      "http://enquire-ollama:1",
		"OLLAMA_HOST":             "0.0.0.0:2",
		"ENQUIRE_OPENAI_BASE_URL": "http://enquire-openai/v1",
		"OPENAI_BASE_URL":         "http://std-openai/v1",
		"ENQUIRE_OPENAI_API_KEY":  "sk-enquire",
		"OPENAI_API_KEY":          "sk-std",
	}
	without := func(keys ...string) map[string]string {
		m := map[string]string{}
		for k, v := range all {
			m[k] = v
		}
		for _, k := range keys {
			m[k] = "  " // blank counts as unset
		}
		return m
	}
	tests := []struct {
		name     string
		provider Provider
		flags    Config
		env      map[string]string
		wantURL  string
		wantKey  string
	}{
		{"ollama: flag wins", ProviderOllama, Config{BaseURL: "http://flag:3"}, all, "http://flag:3", ""},
		{"ollama: ENQUIRE_ over standard", ProviderOllama, Config{}, all, "http://enquire-ollama:1", ""},
		{"ollama: OLLAMA_HOST", ProviderOllama, Config{}, without("ENQUIRE_OLLAMA_URL"), "0.0.0.0:2", ""},
		{"ollama: nothing", ProviderOllama, Config{}, nil, "", ""},
		{"ollama: OpenAI key not read", ProviderOllama, Config{}, map[string]string{"OPENAI_API_KEY": "sk-std"}, "", ""},
		{"openai: flags win", ProviderOpenAI, Config{BaseURL: "http://flag/v1", APIKey: "sk-flag"}, all, "http://flag/v1", "sk-flag"},
		{"openai: ENQUIRE_ over standard", ProviderOpenAI, Config{}, all, "http://enquire-openai/v1", "sk-enquire"},
		{"openai: standard", ProviderOpenAI, Config{}, without("ENQUIRE_OPENAI_BASE_URL", "ENQUIRE_OPENAI_API_KEY"), "http://std-openai/v1", "sk-std"},
		{"openai: mixed", ProviderOpenAI, Config{APIKey: "sk-flag"}, without("ENQUIRE_OPENAI_BASE_URL"), "http://std-openai/v1", "sk-flag"},
		{"openai: nothing", ProviderOpenAI, Config{}, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flags := tt.flags
			flags.Model = "m"
			got, err := FromEnv(tt.provider, flags, func(k string) string { return tt.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if got.BaseURL != tt.wantURL || got.APIKey != tt.wantKey || got.Model != "m" {
				t.Errorf("got BaseURL %q APIKey %q Model %q; want %q, %q, m", got.BaseURL, got.APIKey, got.Model, tt.wantURL, tt.wantKey)
			}
		})
	}
	if _, err := FromEnv("cohere", Config{}, nil); err == nil {
		t.Error("unknown provider accepted")
	}
}

func TestFromEnvReal(t *testing.T) {
	t.Setenv("ENQUIRE_OPENAI_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	got, err := FromEnv(ProviderOpenAI, Config{}, nil)
	if err != nil || got.APIKey != "sk-from-env" {
		t.Fatalf("FromEnv with os.Getenv = %v, %v", got, err)
	}
}
