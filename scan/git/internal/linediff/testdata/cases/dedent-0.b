b
	x
b
	x
a
