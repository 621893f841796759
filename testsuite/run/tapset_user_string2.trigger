exec ./tapset_user_string2
