package mailbox_test

import (
	"fmt"
	"time"

	"switchboard/mailbox"
)

func ExampleFileName() {
	at := time.Date(2026, 11, 22, 8, 57, 0, 123456789, time.UTC)
	name := mailbox.FileName(at, mailbox.PriorityUrgent, "01a20000-0000-7000-8000-000000000001")
	fmt.Println(name)
	info, _ := mailbox.ParseFileName(name)
	fmt.Println(info.Priority, info.Time.Format(time.RFC3339Nano))
	// Output:
	// 20261122T085700.123456789Z_urgent_01a20000-0000-7000-8000-000000000001.json
	// urgent 2026-11-22T08:57:00.123456789Z
}
