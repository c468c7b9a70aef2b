package main

import (
	"fmt"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
)

// ortCheck reports whether this binary runs transformer models, which
// ONNX Runtime library it would load and from where, and the transformer
// models installed.
func ortCheck(env doctorEnv) check {
	c := check{Name: "transformers", Status: statusInfo}
	var installed, needORT []string
	if cache, err := models.CacheDir(env.embed.options()); err == nil {
		for _, s := range onnx.Known() {
			if _, ok := models.FindTransformer(s, cache); ok {
				installed = append(installed, s.Name+" ("+s.Kind.String()+")")
				if !s.PureGo {
					needORT = append(needORT, s.Name+" ("+s.Kind.String()+")")
				}
			}
		}
	}
	if !env.ortBuild {
		c.Detail = "this binary has no ONNX Runtime: its pure-Go encoder runs the BERT embedding models (all-MiniLM-L6-v2, bge-small-en-v1.5); the others of install-model --list need the ort build"
		if len(needORT) > 0 {
			c.Status, c.Items = statusWarn, needORT
			c.Fix = "these installed models need the ort build of enquire-mcp (see the README)"
		} else if len(installed) > 0 {
			c.Detail += "; installed: " + strings.Join(installed, ", ")
		}
		return c
	}
	path, source, err := env.findORT()
	if err != nil {
		c.Status, c.Detail = statusWarn, err.Error()
		c.Fix = "download ONNX Runtime (see the README) and pass --ort-lib PATH or set " + onnx.LibraryEnv
		return c
	}
	c.Status, c.Detail, c.Items = statusOK, fmt.Sprintf("ONNX Runtime library %s (%s)", path, source), installed
	if len(installed) == 0 {
		c.Detail += "; no transformer model installed (install-model --list)"
	} else {
		c.Detail += "; installed: " + strings.Join(installed, ", ")
		c.Items = nil
	}
	return c
}
