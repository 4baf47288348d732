	}
    x
 x

 
   		y
 
   		y
