package index

import (
	"os"
	"path/filepath"
	"testing"
)

// A CJK query term in a note's title, alias or heading counts with that
// column's BM25 weight, as a Latin word there does: the note titled with
// the query outranks one that only mentions it in passing, even twice.
func TestCJKTermsWeighByField(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"机器学习入门.md": "# 机器学习入门\n\n这是一篇关于算法和数据的笔记。\n",
		"日记.md":     "# 日记\n\n今天读了机器学习的书，机器学习很有趣。\n",
		"别名.md":     "---\naliases: [深度网络]\n---\n# 笔记\n\n一些内容。\n",
		"正文.md":     "# 记录\n\n深度网络，深度网络，又是深度网络。\n",
		"标题.md":     "# 杂项\n\n## 向量检索\n\n内容。\n",
		"另一个.md":    "# 其他\n\n关于向量检索的一些比较。\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix := open(t, root, filepath.Join(t.TempDir(), "ix.db"), false)
	syncDisk(t, ix)
	tests := []struct{ query, want string }{
		{"机器学习", "机器学习入门.md"}, // title
		{"深度网络", "别名.md"},     // alias
		{"向量检索", "标题.md"},     // heading
	}
	for _, tt := range tests {
		hits := search(t, ix, tt.query)
		if len(hits) < 2 || hits[0].Path != tt.want {
			t.Errorf("%q: hits %+v, want %s first of two", tt.query, hits, tt.want)
		}
	}
}
