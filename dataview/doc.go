// Package dataview runs the common subset of Obsidian Dataview's query
// language (DQL) over a vault snapshot, with Dataview's semantics where
// answers depend on them.
//
// Supported: LIST [WITHOUT ID] [expr] and TABLE [WITHOUT ID] expr [AS
// name], …; FROM with "folder" (and subfolders, or a note's path), #tag
// (nested tags too), [[note]] (pages linking to it) and
// outgoing([[note]]), combined with and, or, - / ! and parentheses; the
// data commands WHERE, SORT expr [ASC|DESC], … and LIMIT n in any order
// and number. Expressions have Dataview's literals (numbers, "text",
// true/false, null, date(…), dur(…), [[links]], [lists]), field access
// (a.b, a[b], row["key"], file.*), arithmetic, comparison, !, and/or, and
// a set of functions (see the functions table).
//
// Semantics follow Dataview: a missing field is null and null orders below
// every other value (so "due < date(today)" holds for pages without due);
// values of different types order by type name; text compares by locale
// collation; and and or share one precedence, left to right; frontmatter
// text that is wholly a date, a duration or a [[link]] becomes one; an
// expression that fails on a page (number - null) drops the page, and the
// query fails only when every page fails.
//
// Everything else Dataview has (TASK and CALENDAR queries, GROUP BY,
// FLATTEN, lambdas, object literals, other functions, file.ctime, tasks,
// inline "= …" queries, JavaScript, the current note through this or [[]])
// is refused with an [*Error] naming the part and its line and column,
// never answered wrongly. Inline fields (key:: value in the body) are not
// indexed: only frontmatter is.
package dataview
