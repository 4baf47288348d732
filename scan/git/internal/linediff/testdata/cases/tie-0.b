b
a
b
a
}
