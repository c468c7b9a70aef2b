package tokenizer

import (
	"errors"
	"testing"
)

func TestSpecial(t *testing.T) {
	sp := func(kind, id string, typeID int) string {
		return `{"` + kind + `":{"id":"` + id + `","type_id":` + string(rune('0'+typeID)) + `}}`
	}
	specials := `"special_tokens":{"<s>":{"id":"<s>","ids":[0]},"</s>":{"id":"</s>","ids":[2]}}`
	roberta := `{"type":"TemplateProcessing","single":[` + sp("SpecialToken", "<s>", 0) + `,` + sp("Sequence", "A", 0) + `,` + sp("SpecialToken", "</s>", 0) +
		`],"pair":[` + sp("SpecialToken", "<s>", 0) + `,` + sp("Sequence", "A", 0) + `,` + sp("SpecialToken", "</s>", 0) + `,` + sp("SpecialToken", "</s>", 0) +
		`,` + sp("Sequence", "B", 0) + `,` + sp("SpecialToken", "</s>", 0) + `],` + specials + `}`
	tests := []struct {
		name string
		post string
		want Special
		err  error
	}{
		{"absent", `null`, Special{}, ErrNoSpecial},
		{"BertProcessing", `{"type":"BertProcessing","sep":["[SEP]",102],"cls":["[CLS]",101]}`, Special{101, 102, 1, 1}, nil},
		{"RobertaProcessing", `{"type":"RobertaProcessing","sep":["</s>",2],"cls":["<s>",0]}`, Special{0, 2, 2, 0}, nil},
		{"RoBERTa template", roberta, Special{0, 2, 2, 0}, nil},
		{"in a Sequence", `{"type":"Sequence","processors":[{"type":"ByteLevel"},` + roberta + `]}`, Special{0, 2, 2, 0}, nil},
		{"ByteLevel only", `{"type":"ByteLevel"}`, Special{}, ErrNoSpecial},
		{"other template", `{"type":"TemplateProcessing","single":[` + sp("Sequence", "A", 0) + `],"pair":[],` + specials + `}`, Special{}, ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := Parse([]byte(`{"post_processor":`+tt.post+`,"model":{"type":"WordPiece","vocab":{"a":0}}}`), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := tok.Special()
			if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) || got != tt.want {
				t.Errorf("Special() = %+v, %v; want %+v, %v", got, err, tt.want, tt.err)
			}
		})
	}
}
