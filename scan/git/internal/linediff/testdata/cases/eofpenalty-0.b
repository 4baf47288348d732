	x
b
	x
b
