package main

import (
	"encoding/json"
	"os"
	"sync"
)

// line is one JSON object printed on stdout; "event" says what it is.
type line map[string]any

func event(name string) line { return line{"event": name} }

// with sets key and returns the line, so that a line is built in one expression.
func (l line) with(key string, value any) line {
	l[key] = value
	return l
}

var outputLock sync.Mutex

// printLine writes one JSON line to stdout. Safe from several goroutines: the watchdog prints
// too. encoding/json sorts the keys of a map, so equal events print alike.
func printLine(l line) {
	data, err := json.Marshal(l)
	if err != nil {
		data, _ = json.Marshal(line{"event": "error", "error": "failed", "message": err.Error()})
	}
	outputLock.Lock()
	defer outputLock.Unlock()
	os.Stdout.Write(append(data, '\n'))
}
