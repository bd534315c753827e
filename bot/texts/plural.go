package texts

import (
	"fmt"
	"reflect"
)

// plural writes count n with the form of the word that its language needs
// after it. English passes two forms (one, other): 1 fact, 2 facts, 0 facts.
// Russian passes three (one, few, many): 1 факт, 2 факта, 5 фактов, 11
// фактов, 21 факт, 22 факта. One helper serves every text that shows a
// count, in both languages.
func plural(n any, forms ...string) string {
	return fmt.Sprint(n) + " " + pluralForm(n, forms...)
}

// pluralForm is the form alone, for texts that place the number elsewhere.
func pluralForm(n any, forms ...string) string {
	count, ok := asInt(n)
	if !ok || len(forms) == 0 {
		return forms[len(forms)-1]
	}
	if count < 0 {
		count = -count
	}
	switch len(forms) {
	case 2:
		if count == 1 {
			return forms[0]
		}
		return forms[1]
	case 3:
		switch last, lastTwo := count%10, count%100; {
		case last == 1 && lastTwo != 11:
			return forms[0]
		case last >= 2 && last <= 4 && (lastTwo < 12 || lastTwo > 14):
			return forms[1]
		}
		return forms[2]
	}
	return forms[len(forms)-1]
}

// asInt reads any integer kind.
func asInt(n any) (int64, bool) {
	v := reflect.ValueOf(n)
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(v.Uint()), true
	}
	return 0, false
}
