a
	x
b

  y
b

  y
