/** Usernames: letters, digits and spaces (3 to 30 of them, checked with the length rules). */
export const USERNAME = /^[A-Za-z0-9 ]+$/;
