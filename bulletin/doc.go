// Package bulletin will own the global bulletin, mailboxes/global_bulletin/
// status.json, and its locked read-modify-write store.
package bulletin
