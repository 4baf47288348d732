
	    x
        z

