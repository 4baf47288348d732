  x
		y
  x
 
 
x
