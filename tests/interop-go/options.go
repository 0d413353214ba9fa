package main

import (
	"fmt"
	"strconv"
	"strings"
)

// usageError is a mistake in the command line: exit code 2, nothing was done.
type usageError struct{ message string }

func (e usageError) Error() string { return e.message }

func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// options holds "--name value" pairs; a name may repeat. The flags in flagNames take no value.
type options struct {
	values map[string][]string
}

var flagNames = map[string]bool{"verify-hostname": true}

// parseOptions reads args (after the command) and rejects any name not in known.
func parseOptions(args []string, known map[string]bool) (options, error) {
	parsed := options{values: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "--") || len(arg) == 2 {
			return parsed, usagef("'%s' is not an option (--name value)", arg)
		}
		name := arg[2:]
		if !known[name] {
			return parsed, usagef("unknown option '--%s'", name)
		}
		if flagNames[name] {
			parsed.values[name] = append(parsed.values[name], "true")
			continue
		}
		if i+1 >= len(args) {
			return parsed, usagef("--%s needs a value", name)
		}
		i++
		parsed.values[name] = append(parsed.values[name], args[i])
	}
	return parsed, nil
}

func (o options) has(name string) bool { return len(o.values[name]) > 0 }

// text is the last value given for name, or fallback.
func (o options) text(name, fallback string) string {
	if values := o.values[name]; len(values) > 0 {
		return values[len(values)-1]
	}
	return fallback
}

func (o options) required(name string) (string, error) {
	if !o.has(name) {
		return "", usagef("--%s is required", name)
	}
	return o.text(name, ""), nil
}

// integer is the value of name as a whole number of at least min, or fallback when absent.
func (o options) integer(name string, fallback, min int64) (int64, error) {
	if !o.has(name) {
		return fallback, nil
	}
	text := o.text(name, "")
	value, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, usagef("--%s '%s' is not an integer", name, text)
	}
	if value < min {
		return 0, usagef("--%s '%s' must be at least %d", name, text, min)
	}
	return value, nil
}
