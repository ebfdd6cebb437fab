// Package yamlsyntax says where a hand-edited YAML file's syntax error is
// and what it means: yaml.v3 reports some errors (a key indented wrongly)
// at the line where the enclosing block began, which may be far above, in
// the parser's words.
package yamlsyntax
