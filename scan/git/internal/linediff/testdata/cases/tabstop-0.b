   		y
   		y
	}
   		y
   		y
	}
