x
x
 
	
	x
 
	
	x
