// Package spelling finds the word a typo was meant to be, among the words
// that were possible: an agent's name, a flag's. It owns one measure of how
// far apart two words are, so that every "did you mean" agrees.
package spelling
