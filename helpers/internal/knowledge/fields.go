package knowledge

import "reflect"

// EachText calls fn with a pointer to every string that v (a pointer to a
// struct) holds in its exported fields: strings, slices of strings, and the
// same inside nested structs and non-nil pointers to structs. Redaction and
// output cleaning walk an entry through it, so a field is covered the day
// it is added, without a list to keep in step.
func EachText(v any, fn func(*string)) {
	eachText(reflect.ValueOf(v), fn)
}

func eachText(v reflect.Value, fn func(*string)) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			eachText(v.Elem(), fn)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				eachText(v.Field(i), fn)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			eachText(v.Index(i), fn)
		}
	case reflect.String:
		if v.CanAddr() && v.CanSet() {
			fn(v.Addr().Interface().(*string))
		}
	}
}

// Clone is a deep copy of e: its slices and its detail are its own, so a
// walk by [EachText] over the copy leaves e as it was.
func (e Entry) Clone() Entry {
	c := reflect.New(reflect.TypeFor[Entry]()).Elem()
	deepCopy(c, reflect.ValueOf(e))
	return c.Interface().(Entry)
}

// deepCopy copies src into dst (settable, of src's type), with new backing
// for slices and pointers.
func deepCopy(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if !src.IsNil() {
			dst.Set(reflect.New(src.Type().Elem()))
			deepCopy(dst.Elem(), src.Elem())
		}
	case reflect.Struct:
		for i := range src.NumField() {
			if dst.Field(i).CanSet() {
				deepCopy(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Slice:
		if !src.IsNil() {
			dst.Set(reflect.MakeSlice(src.Type(), src.Len(), src.Len()))
			for i := range src.Len() {
				deepCopy(dst.Index(i), src.Index(i))
			}
		}
	default:
		dst.Set(src)
	}
}
