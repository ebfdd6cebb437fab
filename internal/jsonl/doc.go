// Package jsonl appends values to files of JSON lines, one value a line,
// in one write each call: the records kept beside the message log.
package jsonl
