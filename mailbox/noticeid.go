package mailbox

import "github.com/google/uuid"

// noticeSpace makes notice ids deterministic: a notice re-sent by a master
// restarted after a crash has the id, and so the file name, of the first, and
// is not delivered twice.
var noticeSpace = uuid.MustParse("5b0a3c1e-6d1f-4c55-9a57-2f0d3f6e8b11")

// NoticeID is the id of the master's notice named key.
func NoticeID(key string) string { return uuid.NewSHA1(noticeSpace, []byte(key)).String() }

// BlockedNoticeKey names the notice that tells the sender of message id
// which recipients the rules kept it from.
func BlockedNoticeKey(id string) string { return "blocked/" + id }
