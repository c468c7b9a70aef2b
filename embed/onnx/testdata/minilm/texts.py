# Texts for the all-MiniLM-L6-v2 reference vectors. All written for this
# test: no dataset content.

PROSE = [
    "The quick brown fox jumps over the lazy dog.",
    "I keep my meeting notes in a folder called Work, one note per day.",
    "Backlinks show every note that links to the one you are reading.",
    "A good index turns a pile of notes into something you can search.",
    "The recipe needs two eggs, a cup of flour and a pinch of salt.",
    "Photosynthesis converts light energy into chemical energy stored in sugar.",
    "The train to the coast leaves at seven and arrives just before noon.",
    "Binary search halves the remaining range at every step.",
    "She planted tomatoes along the south wall where the sun lingers longest.",
    "Interest compounds when the gains themselves start earning gains.",
    "Our team moved the weekly review from Monday to Thursday afternoon.",
    "The museum reopened after a long renovation of its east wing.",
    "Rust's borrow checker rejects programs that could race on shared data.",
    "Most of the city's bridges were built in the late nineteenth century.",
    "Sleep deprivation makes it harder to remember what you learned.",
    "The committee postponed the vote until the budget is finalised.",
    "A hash map trades memory for constant-time lookups on average.",
    "Tides are caused mainly by the moon's gravity pulling on the oceans.",
    "He wrote the first draft by hand and typed it up the next morning.",
    "Caching the results saved about forty percent of the request time.",
    "The violinist tuned her instrument while the audience found their seats.",
    "Glaciers carve wide U-shaped valleys as they grind down the mountains.",
    "Version control lets you go back to any earlier state of a project.",
    "The bakery on the corner sells sourdough only on weekends.",
    "Vaccines train the immune system to recognise a pathogen early.",
    "The spreadsheet totals every expense by month and by category.",
    "Wind turbines work best on open plains and along the coast.",
    "A daily note is a quick place to capture thoughts before sorting them.",
    "The novel follows three generations of a family of lighthouse keepers.",
    "Encrypting the backup means a stolen disk reveals nothing.",
    "Prices rose sharply after the harvest failed for a second year.",
    "The library lends laptops to students for up to two weeks.",
    "Reciprocal rank fusion adds up one over sixty plus each rank.",
    "Her thesis compares rainfall patterns across four river basins.",
    "Tags group notes by theme even when they live in different folders.",
    "The old lighthouse was automated in the nineteen-eighties.",
    "Stretching before running is less useful than a gentle warm-up jog.",
    "A compiler translates source code into instructions the machine runs.",
    "The orchestra rehearsed the symphony's final movement twice.",
    "Dense vectors place texts with similar meaning close together.",
]

QUESTIONS = [
    "How do I link to a heading in another note?",
    "What is the difference between a process and a thread?",
    "Where did I write down the wifi password for the cabin?",
    "Why does my bread come out flat?",
    "How can I find every note that mentions a person?",
    "What causes the seasons on Earth?",
    "When is the project deadline?",
    "Which notes have no links at all?",
    "How do you calculate the area of a circle?",
    "What did we decide about the office move?",
    "Is it safe to delete the cache folder?",
    "How does garbage collection work in Go?",
    "What are the symptoms of vitamin D deficiency?",
    "Who was the first person to climb the mountain?",
    "How do I embed an image inside a note?",
    "What is a good way to review notes weekly?",
    "Can I search inside PDF files?",
    "How do transformers use attention?",
    "What's the capital of Australia?",
    "How many tokens does the model read at most?",
    "Why is my laptop fan so loud?",
    "What books did I read last summer?",
    "How do I change the default folder for new notes?",
    "What is the time complexity of quicksort?",
    "How do I hide a note from search?",
    "Which plants grow well in shade?",
    "How do I write a query that lists tasks due this week?",
    "What is the boiling point of water at high altitude?",
    "How do aliases work for note titles?",
    "Why do leaves change colour in autumn?",
    "What are the steps to renew a passport?",
    "How do I sync my vault between two computers?",
    "What is entropy in information theory?",
    "How can I tell which notes changed recently?",
    "what is tf-idf",
    "best way to learn a new language as an adult?",
    "how to make cold brew coffee",
    "difference between bm25 and cosine similarity",
    "who wrote the meeting notes from march",
    "why won't the plugin load after the update",
]

CJK = [
    "如何在笔记之间创建链接？",
    "这个库提供了快速的全文搜索功能。",
    "我每天早上都会写一篇日记。",
    "双向链接可以显示哪些笔记引用了当前笔记。",
    "请把会议记录放在工作文件夹里。",
    "机器学习模型需要大量的训练数据。",
    "今天的天气很好，我们去公园散步吧。",
    "标签可以把不同文件夹里的笔记归为一类。",
    "怎样在笔记中嵌入图片？",
    "搜索结果按照相关性排序。",
    "日本語のテキストも正しく処理されるべきです。",
    "東京駅から新幹線で大阪まで行きました。",
    "ノートにタグを付けて整理します。",
    "検索エンジンは索引を使って素早く答えます。",
    "このメモには買い物リストが書いてあります。",
    "한국어 문장도 잘 처리되어야 합니다.",
    "오늘 회의에서 새로운 일정을 정했습니다.",
    "노트 사이의 링크를 만드는 방법은 무엇인가요?",
    "데이터베이스를 백업하는 것을 잊지 마세요.",
    "도서관에서 책을 빌렸어요.",
    "混合 text with 中文 and English words 一起。",
    "Obsidian の プラグイン を インストール する",
    "检索增强生成（RAG）结合了搜索和生成。",
    "数学笔记：勾股定理 a² + b² = c²",
    "繁體中文的筆記也要能被搜尋到。",
]

MARKDOWN = [
    "See [[Project Alpha]] for the timeline and [[People/Ana|Ana]] for contacts.",
    "# Weekly review\n\n- [ ] tidy inbox\n- [x] update [[Goals 2026]]\n",
    "```go\nfunc add(a, b int) int { return a + b }\n```",
    "Use `grep -rn TODO .` to find open tasks in the code.",
    "![[diagram.png|400]] shows the data flow from files to hits.",
    "> [!note] Callouts start with a bracketed type.\n> They can fold.",
    "---\ntags: [recipe, dessert]\nserves: 4\n---\n# Apple crumble",
    "| name | value |\n|---|---|\n| alpha | 1 |\n| beta | 2 |",
    "Link to a block: [[Daily/2026-03-01#^abc123]] and a heading [[Notes#Setup]].",
    "#todo #project/alpha follow up with the supplier about the invoice",
    "```python\nimport numpy as np\nx = np.linspace(0, 1, 11)\nprint(x.mean())\n```",
    "**Bold** and *italic* and ~~struck~~ and ==highlighted== text.",
    "1. Open settings\n2. Go to *Files and links*\n3. Turn on **Use [[Wikilinks]]**",
    "Footnote reference[^1].\n\n[^1]: The footnote text lives at the bottom.",
    "$$E = mc^2$$ and inline math $a^2 + b^2$ in one line.",
    "```sql\nSELECT title FROM notes WHERE tags LIKE '%draft%';\n```",
    "- [[Books/Dune]] — reread in winter\n- [[Books/Middlemarch]] — halfway",
    "<!-- hidden comment --> visible text after an HTML comment",
    "%%Obsidian comment%% and then the real sentence.",
    "https://example.com/path?query=1&sort=desc is the link I saved.",
    "```dataview\nTABLE file.mtime AS modified FROM #meeting SORT file.mtime DESC\n```",
    "Meeting with [[Bob Smith]] re: [[Q3 budget]] — action items below.",
    "## Setup\n\nRun `make build`, then `./bin/server --port 8080`.",
    "[[Index]] > [[Science]] > [[Physics]] > [[Thermodynamics]]",
    "email me at someone@example.org or call +1 (555) 010-9999",
    "C++ templates vs. Go generics: `template<typename T>` vs `func F[T any]()`.",
    "#### Tiny heading\ntext under it",
    "* bullet one\n  * nested bullet\n    * deeper bullet",
    "`code` [[link]] **bold** #tag ^block-id",
    "[external link](https://example.com) and [[internal link]] side by side.",
]

WORDS = [
    "search", "Obsidian", "naïve", "COVID-19", "x", "🙂", "Zettelkasten",
    "backlinks", "résumé", "München", "supercalifragilisticexpialidocious",
    "2026", "3.14159", "e-mail", "CamelCaseWord", "snake_case_word",
    "日本", "中文", "…", "Straße",
]

EDGE = [
    "",
    "   ",
    "\n\n\t",
    "!!!???",
    "a" * 150,
    "The the THE tHe",
    "ÀÉÎÕÜ àéîõü ñç",
    "emoji run 🚀🚀🚀 and flags 🇫🇷🇯🇵",
    "tab\tseparated\tvalues\there",
    "\u200bzero\u200bwidth\u200bspaces",
    "control\x07characters\x01inside",
    "numbers 1 22 333 4444 55555 666666 7777777",
    "Ünïcödé wörds wïth dïäcrïtïcs",
    "don't can't won't it's you're",
    "a-b-c d_e_f g.h.i j/k/l",
]


def long_texts():
    out = []
    # Windows of prose past 256 tokens, and two past 512.
    for i in range(12):
        n = 8 + 3 * i
        parts = [PROSE[(i * 7 + j) % len(PROSE)] for j in range(n)]
        out.append(" ".join(parts))
    out.append(" ".join(QUESTIONS * 2))
    out.append("\n\n".join(MARKDOWN))
    out.append(" ".join(CJK * 3))
    out.append(("word " * 600).strip())
    return out


def all_texts():
    texts = PROSE + QUESTIONS + CJK + MARKDOWN + WORDS + EDGE + long_texts()
    # Each question again as a lower-case keyword query.
    texts += [q.lower().rstrip("?") for q in QUESTIONS[:20]]
    return texts
