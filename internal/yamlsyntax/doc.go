// Package yamlsyntax says where a hand-edited YAML file is wrong: Error, a
// problem at a line of a file (the rules and the profiles both report
// theirs so), and Explain, which finds the line a syntax error is on and
// says what it means. yaml.v3 reports some errors (a key indented wrongly)
// at the line where the enclosing block began, which may be far above, in
// the parser's words.
package yamlsyntax
