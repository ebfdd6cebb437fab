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

func ExampleParse() {
	// An agent may write "to" as one name and leave out what Normalize fills.
	m, err := mailbox.Parse([]byte(`{"from":"developer_agent","to":"reviewer_agent","title":"Review the login change","x_ticket":"JIRA-7"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	m.Normalize(time.Date(2026, 11, 22, 8, 57, 0, 0, time.UTC))
	fmt.Println(m.To, m.Priority, m.Type, m.Timestamp.Format(time.RFC3339), string(m.Extra["x_ticket"]))
	fmt.Println(m.Validate())

	_, err = mailbox.Parse([]byte(`{"from":"developer_agent","to":"reviewer_agent","title":5}`))
	fmt.Println(err)
	// Output:
	// [reviewer_agent] normal notification 2026-11-22T08:57:00Z "JIRA-7"
	// <nil>
	// invalid message: field "title" must be a string, not a JSON number
}
