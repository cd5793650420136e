"""MME-RealWorld (arXiv 2408.13257), its Autonomous_Driving domain, scored as the official script scores it."""
