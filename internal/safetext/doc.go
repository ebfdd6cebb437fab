// Package safetext makes text from agents safe to print for a person: a
// control character, an escape sequence or a character that reorders text
// on screen is shown as an escape (\x1b, \u202e), never sent to the terminal
// to interpret. JSON output needs none of this: it keeps the data exact.
// And a word put in a command line for sh is quoted so that the shell reads
// it as one word, whatever it holds (ShellWord).
package safetext
